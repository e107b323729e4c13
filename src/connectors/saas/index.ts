// The SaaS connectors of the catalog, one module per service (contract 22). Adding one: its file
// here (connection definition and test), listed below, and a stand-in under test/stand-ins/.
import type { Connector } from '../types.ts';
import { airtable } from './airtable.ts';
import { asana } from './asana.ts';
import { bamboohr } from './bamboohr.ts';
import { box } from './box.ts';
import { docusign } from './docusign.ts';
import { dropbox } from './dropbox.ts';
import { dynamicsCrm } from './dynamics_crm.ts';
import { freshdesk } from './freshdesk.ts';
import { github } from './github.ts';
import { gmail } from './gmail.ts';
import { googleCalendar } from './google_calendar.ts';
import { googleDrive } from './google_drive.ts';
import { googleSheets } from './google_sheets.ts';
import { hubspot } from './hubspot.ts';
import { intercom } from './intercom.ts';
import { jira } from './jira.ts';
import { marketo } from './marketo.ts';
import { netsuite } from './netsuite.ts';
import { okta } from './okta.ts';
import { outlook } from './outlook.ts';
import { quickbooks } from './quickbooks.ts';
import { salesforce } from './salesforce.ts';
import { sendgrid } from './sendgrid.ts';
import { serviceNow } from './service_now.ts';
import { shopify } from './shopify.ts';
import { slack, slackBot } from './slack.ts';
import { snowflake } from './snowflake.ts';
import { stripe } from './stripe.ts';
import { teams } from './teams.ts';
import { twilio } from './twilio.ts';
import { workdayRest } from './workday_rest.ts';
import { zendesk } from './zendesk.ts';
import { zoom } from './zoom.ts';

export const SAAS_CONNECTORS: readonly Connector[] = [
  salesforce,
  gmail,
  slack,
  slackBot,
  googleSheets,
  sendgrid,
  googleDrive,
  jira,
  stripe,
  quickbooks,
  outlook,
  hubspot,
  zendesk,
  serviceNow,
  teams,
  dropbox,
  box,
  asana,
  github,
  shopify,
  twilio,
  airtable,
  zoom,
  docusign,
  okta,
  workdayRest,
  netsuite,
  snowflake,
  googleCalendar,
  dynamicsCrm,
  intercom,
  bamboohr,
  marketo,
  freshdesk,
];
