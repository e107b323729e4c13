// Every service's stand-in fixture, for the tests that run them all.
import type { ServiceFixture } from './fixture.ts';
import { airtable } from './airtable.ts';
import { asana } from './asana.ts';
import { bamboohr } from './bamboohr.ts';
import { box } from './box.ts';
import { docusign } from './docusign.ts';
import { dropbox } from './dropbox.ts';
import { freshdesk } from './freshdesk.ts';
import { github } from './github.ts';
import { gmail, googleCalendar, googleDrive, googleSheets } from './google.ts';
import { hubspot } from './hubspot.ts';
import { intercom } from './intercom.ts';
import { jira } from './jira.ts';
import { marketo } from './marketo.ts';
import { dynamicsCrm, outlook, teams } from './microsoft.ts';
import { netsuite } from './netsuite.ts';
import { okta } from './okta.ts';
import { quickbooks } from './quickbooks.ts';
import { fixture as salesforce } from './salesforce.ts';
import { sendgrid } from './sendgrid.ts';
import { serviceNow } from './service_now.ts';
import { shopify } from './shopify.ts';
import { slack, slackBot } from './slack.ts';
import { snowflake } from './snowflake.ts';
import { stripe } from './stripe.ts';
import { twilio } from './twilio.ts';
import { workdayRest } from './workday_rest.ts';
import { zendesk } from './zendesk.ts';
import { zoom } from './zoom.ts';

export const FIXTURES: readonly ServiceFixture[] = [
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
